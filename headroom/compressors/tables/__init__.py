"""Tables: delimited text (CSV/TSV/semicolon), whitespace-aligned text and JSON arrays of mostly numeric records.

``sniff`` recognises a delimited table, ``aligned`` a whitespace-aligned one, ``select`` chooses which rows stay in view (shared
by both forms), ``csv_compressor`` is the ContentRouter's compressor for table text and
``records`` is the hook SmartCrusher calls for numeric record arrays.
"""
