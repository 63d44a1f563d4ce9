"""iosweep-report's page: its pieces (html, svg), its sections (overview, sweep, comparison,
latency, sections, final_math), the page in the order of its sections (page) and the command
(cli)."""
