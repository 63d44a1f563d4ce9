"""The floor of iosweep_tools: what every other part shares. It imports nothing else of the
package (docs/architecture.md, "The Python side")."""
