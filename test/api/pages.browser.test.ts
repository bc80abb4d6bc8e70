import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { addMonths, legalToday } from "../../src/law/calendar.ts";
import { createApiKey } from "../../src/platform/tenants/tenants.ts";
import { frenchDate } from "../../src/queries/portal/web.ts";
import { eventually } from "../support/eventually.ts";
import { multipartForm } from "../support/multipart.ts";
import { type PagesSetup, pageFixtures, startPages } from "../support/pages.ts";
import { decodedText, startSmtpServer, type TestSmtpServer } from "../support/smtpServer.ts";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * The two pages in a real browser (docs/portal.md): Debian's Chromium driven by playwright-core.
 * A lessee signs in with their tenant's OpenID Connect provider (served by the test), signs their
 * lease with the code read from the test's SMTP server, downloads the signed lease and a
 * quittance; an auditor replays the lease at a past moment and verifies its export, then a
 * tampered one. Each page is checked by axe-core (no serious or critical violation), raises no
 * Content-Security-Policy violation, and is kept as a screenshot in docs/images/.
 */

const CHROMIUM = "/usr/bin/chromium";
const present = existsSync(CHROMIUM);
if (!present) console.warn(`Browser tests skipped: ${CHROMIUM} is absent (CI installs Debian's chromium).`);

const IMAGES = join(import.meta.dirname, "../../docs/images");
const AXE = readFileSync(join(import.meta.dirname, "../../node_modules/axe-core/axe.min.js"), "utf8");
const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(1024, 7), Buffer.from("\n%%EOF\n")]);

describe.each(databaseKinds)("the pages in Chromium on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let pages: PagesSetup;
  let browser: Browser;
  let origin = "";
  const f = pageFixtures(() => t);
  const today = legalToday();
  const violations: string[] = [];

  beforeAll(async () => {
    if (!present) return;
    smtp = await startSmtpServer();
    t = await createTestApp(
      kind,
      {
        SMTP_URL: smtp.url,
        SMTP_FROM: "Gestion Dupont <gestion@dupont-immo.fr>",
        PMS_SESSION_SECRET: "a-session-secret-for-tests-0123456789",
      },
      { loops: true },
    );
    pages = await startPages(t);
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    // localhost: a secure context over http, so the browser keeps the Secure cookies.
    origin = `http://localhost:${(t.app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--host-resolver-rules=MAP localhost 127.0.0.1"],
    });
    mkdirSync(IMAGES, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await pages?.close();
    await smtp?.close();
  });

  const codeFor = async (email: string, after: number) => {
    const mail = await eventually(
      async () => smtp.accepted.slice(after).find((m) => m.to.includes(email)),
      (m) => m !== undefined,
    );
    return /: (\d{6})/.exec(decodedText(mail?.raw ?? ""))?.[1] ?? "";
  };

  /** A lease of `sub` sent for signature: lessor with an email, mandatory annexes, contract, a credit. */
  const leaseToSign = async (sub: string) => {
    const owner: TestTenant = { id: "", key: await pages.idp.token({ sub: "owner-1", roles: ["owner"] }) };
    const lessor = await t.request("POST", "/api/owners", {
      body: { category: "company", legal_name: "SCI Dupont", email: "bailleur@sci-dupont.fr" },
    });
    const lease = await f.newLease({
      primary_lessee_id: await f.lesseeOf(sub),
      start_date: `${today.slice(0, 8)}01`,
    });
    await t.request("PUT", `/api/estates/${lease.estate_id}`, { body: { owner_id: lessor.json().id } });
    await t.request("POST", `/api/leases/${lease.id}/annexes`, {
      body: { catalog_code: "NOTICE_INFORMATION" },
    });
    for (const [code, date] of [
      ["DPE", addMonths(today, -12)],
      ["ERP", addMonths(today, -1)],
      ["ENTRY_CONDITION_REPORT", today],
    ]) {
      const body = multipartForm(
        { catalog_code: code, document_date: date },
        { content: PDF, filename: "annexe.pdf", type: "application/pdf" },
      );
      const up = await t.app.inject({
        method: "POST",
        url: `/api/leases/${lease.id}/annexes`,
        payload: body.payload,
        headers: { "content-type": body.type, authorization: `Bearer ${t.tenant.key}` },
      });
      expect(up.statusCode, up.body).toBe(201);
    }
    expect((await t.request("POST", `/api/leases/${lease.id}/pdf`)).statusCode).toBe(201);
    const session = await t.request("POST", "/api/credits/checkout", {
      body: { package_id: "starter" },
      as: owner,
    });
    const checkout = new URL(session.json().checkout_url);
    await t.request("GET", `${checkout.pathname}${checkout.search}`, { as: null });
    const started = await eventually(
      () => t.request("POST", `/api/leases/${lease.id}/signature/initiate`),
      (res) => res.statusCode === 201,
    );
    expect(started.statusCode, started.body).toBe(201);
    return lease.id;
  };

  /** axe-core on the page as it stands: no serious or critical violation (WCAG 2.2 A and AA). */
  const accessible = async (page: Page) => {
    await page.evaluate(AXE);
    const found = await page.evaluate(async () => {
      const run = await (window as unknown as { axe: { run(o: object): Promise<any> } }).axe.run({
        runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
      });
      return run.violations
        .filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical")
        .map(
          (v: { id: string; nodes: { target: string[] }[] }) =>
            `${v.id}: ${v.nodes.map((n) => n.target).join(" ")}`,
        );
    });
    expect(found, page.url()).toEqual([]);
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(IMAGES, `${name}.png`), fullPage: true });
  const newPage = async (width: number, height: number) => {
    const context = await browser.newContext({
      viewport: { width, height },
      locale: "fr-FR",
      acceptDownloads: true,
    });
    const page = await context.newPage();
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) violations.push(m.text());
    });
    return page;
  };
  const download = async (page: Page, link: ReturnType<Page["getByRole"]>) => {
    const [file] = await Promise.all([page.waitForEvent("download"), link.click()]);
    return readFileSync(await file.path());
  };

  it.skipIf(!present)(
    "a lessee signs in, signs their lease with the emailed code, downloads it and a quittance",
    async () => {
      const sub = "camille";
      const leaseId = await leaseToSign(sub);
      pages.idp.user = f.lessee(sub);
      const page = await newPage(390, 844);

      await page.goto(`${origin}/portal?espace=${encodeURIComponent(pages.name)}`);
      await accessible(page);
      await shot(page, "portal-accueil");
      await page.getByRole("link", { name: /Se connecter/ }).click();
      await page.waitForURL(`${origin}/portal`);
      await expect(page.getByRole("heading", { level: 1 })).toBeDefined();
      expect(await page.textContent("h1")).toBe("Mes baux");
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === "pms_portal")).toMatchObject({
        httpOnly: true,
        secure: true,
        sameSite: "Lax",
      });
      await accessible(page);
      await shot(page, "portal-baux");

      await page.getByRole("link", { name: /Location vide/ }).click();
      expect(await page.textContent("h1")).toMatch(/^Location vide à partir du 1er [a-zéû]+ 20\d\d$/);
      await accessible(page);

      // Signing: the code by email, typed in, the signature recorded.
      await page.getByRole("link", { name: "Signature", exact: true }).click();
      await accessible(page);
      const sentAt = smtp.accepted.length;
      await page.getByRole("button", { name: /Recevoir mon code/ }).click();
      await page.waitForSelector(".note[role='status']");
      const code = await codeFor(`${sub}.main@example.fr`, sentAt);
      expect(code).toMatch(/^\d{6}$/);
      await page.getByLabel(/Code reçu par courriel/).fill(code);
      await accessible(page);
      await shot(page, "portal-signature-code");
      await page.getByRole("button", { name: "Signer le bail" }).click();
      await page.waitForSelector("text=Votre signature est enregistrée.");
      expect(await page.textContent(".signatories")).toMatch(/Camille Durand, Locataire : A signé le/);

      // The lessor signs through the API; the lessee then downloads the signed lease.
      const staff = (await t.request("GET", `/api/leases/${leaseId}/signature`)).json();
      const lessor = staff.signatories.find((s: { role: string }) => s.role === "Lessor");
      const lessorAt = smtp.accepted.length;
      await t.request("POST", `/api/leases/${leaseId}/signature/request`, {
        body: { signatory_id: lessor.signatory_id },
      });
      const done = await t.request("POST", `/api/leases/${leaseId}/signature/validate`, {
        body: { signatory_id: lessor.signatory_id, otp: await codeFor("bailleur@sci-dupont.fr", lessorAt) },
      });
      expect(done.json().status).toBe("COMPLETED");
      await page.reload();
      await accessible(page);
      await shot(page, "portal-signature-faite");
      const signed = await download(page, page.getByRole("link", { name: /Télécharger le bail signé/ }));
      expect(signed.subarray(0, 5).toString()).toBe("%PDF-");
      expect(createHash("sha256").update(signed).digest("hex")).toBe(done.json().signed_pdf.sha256);

      // A rent call paid in full: its quittance from the account page.
      await issueRentCalls({ sql: t.sql, store: t.service.platform.store }, { today, tenantId: t.tenant.id });
      const [call] = await eventually(
        async () => (await t.request("GET", `/api/leases/${leaseId}/rent-calls`)).json(),
        (calls) => calls.length === 1,
      );
      const paid = await t.request("POST", `/api/leases/${leaseId}/payments`, {
        body: { amount: call.total_amount, paid_on: today, method: "VIREMENT_BANCAIRE" },
      });
      expect(paid.statusCode, paid.body).toBe(201);
      await page.getByRole("link", { name: "Mon compte" }).click();
      expect(await page.textContent(".balance")).toMatch(/Solde : 0,00\s€ \(rien à payer\)/);
      await accessible(page);
      await shot(page, "portal-compte");
      const quittance = await download(page, page.getByRole("link", { name: /^Quittance/ }));
      expect(quittance.subarray(0, 5).toString()).toBe("%PDF-");

      await page.getByRole("link", { name: "Le bail" }).click();
      expect(await page.textContent("#documents + ul")).toMatch(/Bail signé[\s\S]*Quittance du/);
      await accessible(page);
      await shot(page, "portal-bail");

      // The entry report, signed today by the manager, completed by the lessee within its ten days.
      const report = await t.request("POST", `/api/leases/${leaseId}/condition-reports`, {
        body: {
          type: "ENTRY",
          date: today,
          rooms: [{ name: "Séjour", elements: [{ element: "Murs", condition: "GOOD" }] }],
          meter_readings: [],
          keys: [{ kind: "porte d'entrée", count: 2 }],
        },
      });
      expect(report.statusCode, report.body).toBe(201);
      const reportUrl = `/api/leases/${leaseId}/condition-reports/${report.json().id}`;
      expect((await t.request("PUT", `${reportUrl}/status`, { body: { status: "SIGNED" } })).statusCode).toBe(
        200,
      );
      await page.getByRole("link", { name: /compléter l'état des lieux d'entrée/ }).click();
      await page.getByLabel("Pièce").selectOption("Séjour");
      await page.getByLabel(/Élément/).fill("Parquet");
      await page.getByLabel("État constaté").selectOption("POOR");
      await page.getByLabel("Commentaire").fill("Rayure profonde devant la fenêtre");
      await page.getByRole("button", { name: "Envoyer le complément" }).click();
      await page.waitForSelector("text=Votre complément à l'état des lieux est enregistré.");
      expect(await page.textContent("main")).toContain(
        "Séjour, Parquet : Mauvais état (Rayure profonde devant la fenêtre)",
      );
      expect((await t.request("GET", reportUrl)).json().completions).toEqual([
        {
          received_on: today,
          elements: [
            expect.objectContaining({
              room_name: "Séjour",
              element: "Parquet",
              condition: "POOR",
              heating: false,
            }),
          ],
        },
      ]);
      await accessible(page);
      await shot(page, "portal-etat-des-lieux");
      await page.getByRole("link", { name: "Le bail" }).click();

      // Notice with a reason of art. 15 I: one month, its end date shown.
      await page.getByLabel(/Motif réduisant le préavis/).selectOption("JOB_LOSS");
      await page.getByLabel("Je donne congé de ce bail").check();
      await page.getByRole("button", { name: "Donner congé" }).click();
      await page.waitForSelector("text=Votre congé est enregistré.");
      const noticed = (await t.request("GET", `/api/leases/${leaseId}`)).json();
      expect(noticed).toMatchObject({ status: "NOTICE", notice_date: today });
      expect(noticed.notice_end_date > today).toBe(true);
      expect(await page.textContent("#conge + p")).toBe(
        `Congé reçu le ${frenchDate(today)} : le bail prend fin le ${frenchDate(noticed.notice_end_date)}.`,
      );
      await accessible(page);
      await shot(page, "portal-conge");

      await page.getByRole("button", { name: "Se déconnecter" }).click();
      expect(await page.textContent("main")).toContain("Vous êtes déconnecté");
      await page.goto(`${origin}/portal/leases/${leaseId}`);
      expect(await page.textContent("main")).toContain("Votre session a expiré");
      expect(violations).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!present)(
    "an auditor replays a lease at a past moment and verifies its export, then a tampered one",
    async () => {
      const lease = await f.leaseOf("dominique");
      const changed = await t.request("PUT", `/api/leases/${lease}`, { body: { rent_amount: 845.5 } });
      expect(changed.statusCode, changed.body).toBe(200);
      expect((await f.setStatus(lease, "ACTIVE")).statusCode).toBe(200);
      const reader = await createApiKey(t.sql, t.tenant.id, "auditeur", ["LeasesRead"]);
      const page = await newPage(1100, 900);

      await page.goto(`${origin}/audit`);
      await accessible(page);
      await shot(page, "audit-accueil");
      await page.getByLabel(/Clé d'API/).fill(reader.key);
      await page.getByRole("button", { name: "Ouvrir la console" }).click();
      await page.getByLabel("Identifiant du bail").fill(lease);
      await page.getByRole("button", { name: "Chercher" }).click();
      await page.waitForURL(`${origin}/audit/leases/${lease}`);
      const timeline = (await page.textContent(".timeline")) ?? "";
      expect(timeline, timeline).toMatch(/LeaseCreated[\s\S]*rent_amount : 845.5/);
      await accessible(page);

      // The slider at the first event: the lease as it was created, a DRAFT at 800 €.
      await page.locator("#etape").fill("0");
      expect(await page.textContent("#etape-valeur")).toBe("0");
      await page.getByRole("button", { name: "Rejouer à cet événement" }).click();
      const replayed = await page.textContent("#etat + dl");
      expect(replayed, replayed ?? "").toMatch(/status\s*DRAFT/);
      expect(replayed, replayed ?? "").toMatch(/rent_amount\s*800(?![\d.])/);
      await accessible(page);
      await shot(page, "audit-rejeu");

      await page.getByRole("button", { name: "Vérifier l'export de ce bail" }).click();
      await page.waitForSelector(".verdict-ok");
      const events = (await t.request("GET", `/api/leases/${lease}/history`)).json().length;
      expect(events).toBeGreaterThanOrEqual(3);
      expect(await page.textContent("#verdict")).toContain(`intègre. ${events} événement(s) dans 1 flux`);
      await shot(page, "audit-export-verifie");

      // One figure changed in the line of the rent's change: named there.
      const text = await (await page.request.get(`${origin}/audit/leases/${lease}/history.ndjson`)).text();
      const lines = text.split("\n");
      const at = lines.findIndex((l) => l.includes('"rent_amount":845.5'));
      expect(at).toBeGreaterThan(0);
      lines[at] = lines[at].replace('"rent_amount":845.5', '"rent_amount":745.5');
      await page.setInputFiles("#export-file", {
        name: "historique-modifie.ndjson",
        mimeType: "application/x-ndjson",
        buffer: Buffer.from(lines.join("\n")),
      });
      await page.waitForSelector(".verdict-bad");
      expect(await page.textContent("#verdict")).toContain(
        `NON INTÈGRE à la ligne ${at + 1} : son empreinte`,
      );
      await accessible(page);
      await shot(page, "audit-export-altere");
      expect(violations).toEqual([]);
    },
    60_000,
  );
});
