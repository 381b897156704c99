"""Chilean classifieds directory: Reflex app, data layer and services."""
