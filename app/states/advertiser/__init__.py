"""The advertiser's states: the listing wizard and "my listings"."""
