"""Video poker's optimal-hold advisor and exact return analyses (NumPy; a library).

`advisor.advise` values all 32 holds of a dealt hand exactly; `exact.analyze` and
`split_exact.analyze_split` value every deal under optimal play; `cli` is `croupier vp`.
The rules they analyse are services.games.videopoker's (one classifier, read through
`classes`). docs/games/video-poker.md has the method and the figures.
"""
