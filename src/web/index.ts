export { createWebHandler, type WebHandler, type WebHandlerOptions } from './create-web-handler.js';
export { startWebServer, type WebServer } from './start-web-server.js';
export { isLoopbackHost } from './web-token.js';
