"""HTTP and ASGI adapters, and the server-rendered HTML they serve (Jinja2 templates in ``templates/``)."""
