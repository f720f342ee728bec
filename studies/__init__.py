"""Coverage studies: data-generating processes with known truth, protocols and runner."""
