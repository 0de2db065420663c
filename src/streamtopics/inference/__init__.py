"""Inference parts. Online EM (Dupuy & Bach 2016): `stats` (sufficient statistics, eq. 3 and 6),
`minibatch` (kernel layout), local estimators `gibbs_estep` (Algorithm 2) and
`variational_estep` (eq. 11-14), `global_parameters`, `step_sizes`, `alpha_updates`, and
`presets` (method name -> combination of parts); the loop itself is `streamtopics.engine`.
Batch samplers (CGS with CGS_p estimators, CVB0) live beside them."""
