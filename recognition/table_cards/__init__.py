"""Card games of the seed's list (000:L5) dealt from the studio's card shoe: Red Dog, Draw Hi-Lo and Top Card
Trump (the seed's short sections, 000:L1589-1599), 32 Cards and Peek Baccarat (named only: the published
rules).

Each module is one game (a :class:`recognition.cards.CardGame` deal script) with a module-level ``GAMES``;
docs/games.md says which rules were chosen and why.
"""
