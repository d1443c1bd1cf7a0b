"""Shell text -> every simple command bash would run, every file it reads or writes."""
