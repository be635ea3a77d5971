"""Label Studio: rating exports in, review tasks out, their answers in."""
