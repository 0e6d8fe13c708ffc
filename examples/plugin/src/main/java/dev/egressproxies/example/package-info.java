/**
 * An example third-party provider plugin: a small in-memory backend written against
 * {@code provider-api} alone and registered only through
 * {@code META-INF/services/dev.egressproxies.api.spi.ProviderFactory}.
 *
 * <p>It is a project of its own ({@code examples/plugin}) to prove that a new backend needs no change
 * anywhere else in the tree: a configuration entry of {@code type: example} selects it through
 * the registry, and the conformance suite checks it like any other backend.
 */
package dev.egressproxies.example;
