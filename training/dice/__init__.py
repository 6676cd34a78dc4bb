"""Training of the dice face classifier (needs the optional ``train`` extra; never imported by the studio)."""
