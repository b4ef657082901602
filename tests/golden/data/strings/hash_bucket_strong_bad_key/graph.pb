
3
ConstConst*
valueBBa*
dtype0
\
StringToHashBucketStrongStringToHashBucketStrongConst*
num_buckets*
key
"ª