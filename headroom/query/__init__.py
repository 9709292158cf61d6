"""What the latest question asks: the exact things it names (anchors)."""
