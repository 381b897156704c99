// One Lighthouse run (mobile, its default simulated throttling) of a URL in a fresh chromium profile.
// "first": a first visit, Lighthouse's own storage reset. "returning": the 18+ cookie set before the run,
// and the storage reset off so it stays (the profile is new, so the cache is still cold). "signed-in": as
// "returning", plus the session cookie (HttpOnly) of the token in SESSION_TOKEN.
// Driven by bench/lighthouse.py; needs `npm install lighthouse` in the directory it runs from.
//   CHROME_PATH=/usr/bin/chromium node lighthouse.mjs URL first|returning OUT.json
import fs from 'node:fs';
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import puppeteer from 'puppeteer-core';

const [url, mode, out] = process.argv.slice(2);
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  if (mode === 'returning' || mode === 'signed-in') {
    const browser = await puppeteer.connect({browserURL: `http://127.0.0.1:${chrome.port}`});
    const page = await browser.newPage();
    await page.setCookie({name: process.env.AGE_COOKIE || 'mayor_de_edad', value: '1', url, sameSite: 'Lax'});
    if (mode === 'signed-in') {
      await page.setCookie({
        name: process.env.SESSION_COOKIE || 'sesion', value: process.env.SESSION_TOKEN, url, httpOnly: true,
        sameSite: 'Lax',
      });
    }
    await page.close();
    browser.disconnect();
  }
  const result = await lighthouse(url, {
    port: chrome.port,
    output: 'json',
    logLevel: 'error',
    disableStorageReset: mode !== 'first',
    onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
  });
  fs.writeFileSync(out, result.report);
} finally {
  await chrome.kill();
}
