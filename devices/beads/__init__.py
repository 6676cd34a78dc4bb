"""Fan Tan's bead counter: a device at the dealer's tray that counts the beads the dealer separated."""
