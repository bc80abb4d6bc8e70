/**
 * Preloaded into every child the bench starts (`node --import`): if the bench process goes
 * away without stopping us (crash, kill -9), stop too, so nothing outlives the run.
 */
const parent = Number(process.env.BENCH_PARENT_PID);
if (parent > 0) {
  const timer = setInterval(() => {
    let alive = true;
    try {
      process.kill(parent, 0);
    } catch {
      alive = false;
    }
    if (!alive || process.ppid !== parent) {
      clearInterval(timer);
      process.kill(process.pid, "SIGTERM");
      setTimeout(() => process.exit(1), 5000).unref();
    }
  }, 500);
  timer.unref();
}
