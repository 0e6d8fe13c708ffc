/**
 * The fake egress-proxies backend: {@link dev.egressproxies.fake.FakeProviderFactory} (type
 * {@code fake}) builds a {@link dev.egressproxies.fake.FakeProvider} from a
 * {@link dev.egressproxies.fake.FakeConfig}; tests drive its faults through
 * {@link dev.egressproxies.fake.FaultInjector}.
 */
package dev.egressproxies.fake;
