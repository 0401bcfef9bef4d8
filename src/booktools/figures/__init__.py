"""The book's figures, one module per subject. Each ``plot_...`` returns a Figure.

==================================================  ==========================================
module                                              figures
==================================================  ==========================================
:mod:`~booktools.figures.plane`                     words as points in the plane
:mod:`~booktools.figures.embeddings`                rows of a real embedding table, as strips
:mod:`~booktools.figures.fading`                    a word's effect against distance; digit reversal
:mod:`~booktools.figures.referents`                 which word a pronoun looks at, per head
:mod:`~booktools.figures.heatmaps`                  attention weights as heatmaps
:mod:`~booktools.figures.cost`                      cost against n, on log-log axes
:mod:`~booktools.figures.masks`                     attention masks
:mod:`~booktools.figures.online_softmax`            the online softmax, block by block
:mod:`~booktools.figures.cross`                     cross-attention weights; two causal masks
:mod:`~booktools.figures.learning`                  attention maps after training runs
:mod:`~booktools.figures.scaling`                   softmax saturation against d_k
:mod:`~booktools.figures.generation`                the scores of one step; time per token
:mod:`~booktools.figures.multihead`                 several heads' weights side by side
:mod:`~booktools.figures.transformer`               the path from words to the next word
:mod:`~booktools.figures.wiring`                    an induction head wired by hand beside the trained one
:mod:`~booktools.figures.base`                      what they share: start, finish, PNG
==================================================  ==========================================
"""
