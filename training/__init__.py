"""Training scripts (need the optional ``train`` extra; never imported by the studio)."""
