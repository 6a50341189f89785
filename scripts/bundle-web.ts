/** Builds the web view's page into dist/web/app (run by `npm run build`); see bundle-web-app.ts. */
import { bundleWebApp } from './bundle-web-app.js';

await bundleWebApp('dist/web/app');
