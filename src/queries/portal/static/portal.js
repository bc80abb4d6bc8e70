// Progressive enhancement only (docs/portal.md): every page works without this file.

document.addEventListener("DOMContentLoaded", () => {
  // A form is sent once: its button waits for the answer (a second code or signature is refused anyway).
  for (const form of document.querySelectorAll("form[method='post']")) {
    form.addEventListener("submit", () => {
      for (const button of form.querySelectorAll("button[type='submit']")) {
        button.setAttribute("aria-disabled", "true");
        button.addEventListener("click", (e) => e.preventDefault());
      }
    });
  }
  // The code field: digits only, focused when the code was just sent.
  const otp = document.getElementById("otp");
  if (otp) {
    otp.addEventListener("input", () => {
      otp.value = otp.value.replace(/[^0-9]/g, "").slice(0, 6);
    });
    if (document.querySelector(".note[role='status']")) otp.focus();
  }
});
