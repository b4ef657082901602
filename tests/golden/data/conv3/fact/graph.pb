

FactFact"ª