"""Static texts of the site (legal and information pages)."""
