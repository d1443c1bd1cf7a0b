"""What saikish knows about commands: the catalogue (data), its grammar, their risk."""
