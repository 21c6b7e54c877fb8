"""companion: a Raspberry Pi referee for Ticket to Ride: Europe."""

__version__ = "0.1.0"
