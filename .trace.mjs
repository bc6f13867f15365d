import { chromium } from 'playwright-core';
import { writeFileSync } from 'node:fs';
const base = process.argv[2]; const path = process.argv[3]; const out = process.argv[4];
const login = await fetch(`${base}/service/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.org', password: 'correct horse battery' }) });
const session = await login.json();
if (!session.access_token) { console.log(session); process.exit(1); }
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', ...(process.env.XF ? [process.env.XF] : [])] });
for (let run = 0; run < 3; run++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(`localStorage.setItem('service.session', ${JSON.stringify(JSON.stringify(session))})`);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,v8,v8.execute,disabled-by-default-devtools.timeline,loading,blink.user_timing', transferMode: 'ReportEvents' });
  await page.goto(base + path);
  const lcp = await page.evaluate(() => new Promise((resolve) => { new PerformanceObserver((l) => { const e = l.getEntries(); resolve({ t: e.at(-1).startTime, el: e.at(-1).element?.outerHTML?.slice(0, 80) }); }).observe({ type: 'largest-contentful-paint', buffered: true }); }));
  await page.waitForTimeout(1500);
  await cdp.send('Tracing.end'); await done;
  console.log('run', run, 'LCP', Math.round(lcp.t), lcp.el);
  if (run === 2) writeFileSync(out, JSON.stringify(events));
  await context.close();
}
await browser.close();
