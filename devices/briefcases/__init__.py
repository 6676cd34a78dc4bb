"""Deal or No Deal Live's briefcase scanner: reads the number card of each briefcase as it is opened."""
