"""Generated text about a case (ai-summary, ai-sar-narrative), built only from the case's facts."""
