"""Memory lifecycle (placeholder)."""
