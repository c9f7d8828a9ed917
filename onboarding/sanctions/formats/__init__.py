"""The publishers' file formats: one module per list format, each reading the files as published
into a ParsedList (onboarding.sanctions.records) and registering its lists' ListSpec
(onboarding.sanctions.registry); the helpers they share (dates, tables, XML, parties) beside them."""
