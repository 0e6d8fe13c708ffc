/**
 * The integration tests of the platform's modules: the conformance suite run against each
 * backend built from configuration through the registry, the example plugin's discovery, and the
 * architecture rules.
 */
package dev.egressproxies.integration;
