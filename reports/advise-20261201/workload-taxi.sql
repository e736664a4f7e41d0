# A dashboard's predicates over taxi-nyc: pickup zones, trip lengths, fares, times of day.
PULocationID = 132
PULocationID = 161
PULocationID = 237
PULocationID IN (236, 237, 238)
PULocationID = 132 AND trip_distance > 10
trip_distance > 15
trip_distance BETWEEN 0.5 AND 1.0
fare_amount > 70
total_amount > 100
DOLocationID = 1
pickup_date = '2024-01-03' AND PULocationID = 132
tpep_pickup_datetime >= '2024-01-02 08:00:00' AND tpep_pickup_datetime < '2024-01-02 10:00:00'
