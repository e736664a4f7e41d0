# A dashboard's predicates over the generated trips: weeks, days, zones, long trips, vendors.
pickup >= '2024-03-04' AND pickup < '2024-03-11'
pickup >= '2024-06-10' AND pickup < '2024-06-17'
pickup >= '2024-09-02' AND pickup < '2024-09-09'
pickup >= '2024-11-25' AND pickup < '2024-12-02'
pickup >= '2024-02-14' AND pickup < '2024-02-15'
pickup >= '2024-07-04' AND pickup < '2024-07-05'
pu_location = 132
pu_location = 161
pu_location = 237 AND pickup >= '2024-05-01' AND pickup < '2024-06-01'
pu_location BETWEEN 230 AND 240
pu_location = 48 AND pickup >= '2024-10-01' AND pickup < '2024-10-08'
distance > 35
fare > 110
vendor = 'v1' AND pickup >= '2024-08-01' AND pickup < '2024-08-08'
passengers = 6 AND pickup >= '2024-01-01' AND pickup < '2024-01-08'
