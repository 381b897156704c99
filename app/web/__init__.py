"""HTTP and ASGI adapters: the plain routes (SSG pages, photos, health, /sesion, /_upload, robots.txt,
sitemaps, public and private documents), the middleware around the Reflex app, and the server-rendered
HTML they serve (Jinja2 templates in ``templates/``)."""
