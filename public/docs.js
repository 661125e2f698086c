// GET /docs: Swagger UI (swagger-ui-dist, served by this service) rendering GET /v1/openapi.json.
// No request leaves this origin: the online validator badge is off.
window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  tryItOutEnabled: false,
});
