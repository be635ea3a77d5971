"""The raw release: reading and checking its tables, pool and reviews; the codebook."""
