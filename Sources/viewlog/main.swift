import ViewLog
