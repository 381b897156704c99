"""HTTP and ASGI adapters: the plain routes (SSG pages, photos, health, /sesion, /_upload, robots.txt,
sitemaps, public and private documents) and the middleware around the Reflex app."""
