"""Page components, one module per area of the site."""
