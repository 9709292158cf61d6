"""The image technique router: dataset generators, training and evaluation.

    python -m training.image_router generate
    python -m training.image_router train --data training/image_router/data --device auto
    python -m training.image_router evaluate
"""
