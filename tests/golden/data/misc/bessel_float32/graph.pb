
8
PlaceholderPlaceholder*
dtype0*
shape:
*
BesselI0BesselI0Placeholder*
T0
,
	BesselI0e	BesselI0ePlaceholder*
T0
*
BesselI1BesselI1Placeholder*
T0
,
	BesselI1e	BesselI1ePlaceholder*
T0
*
BesselK0BesselK0Placeholder*
T0
,
	BesselK0e	BesselK0ePlaceholder*
T0
*
BesselK1BesselK1Placeholder*
T0
,
	BesselK1e	BesselK1ePlaceholder*
T0
*
BesselJ0BesselJ0Placeholder*
T0
*
BesselJ1BesselJ1Placeholder*
T0
*
BesselY0BesselY0Placeholder*
T0
*
BesselY1BesselY1Placeholder*
T0"ª