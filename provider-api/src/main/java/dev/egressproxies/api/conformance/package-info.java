/**
 * What a backend declares about itself to the conformance suite: the {@link
 * dev.egressproxies.api.conformance.Capability capabilities} it has, the {@link
 * dev.egressproxies.api.conformance.ConformanceHarness hooks} that do what no provider call can,
 * and the {@link dev.egressproxies.api.conformance.ConformanceProfile profile} of a configured
 * entry that {@code egressctl conformance ENTRY} runs the suite against. The suite itself (JUnit
 * cases) is the {@code conformance-kit} artifact; a plugin needs only these types to be certified
 * from the command line.
 *
 * @since 1.0.0
 */
package dev.egressproxies.api.conformance;
