"""The dataset: built from the raw release, carded, published, loaded back."""
