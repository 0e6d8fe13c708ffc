/**
 * The provider conformance suite: {@link dev.egressproxies.conformance.ProviderConformanceTest},
 * which a backend subclasses, and the {@link dev.egressproxies.conformance.ConformanceTarget},
 * {@link dev.egressproxies.api.conformance.Capability} and
 * {@link dev.egressproxies.api.conformance.ConformanceHarness} through which the subclass describes
 * the backend. Everything else in the package is the suite's own machinery.
 *
 * @since 1.0.0
 */
package dev.egressproxies.conformance;
