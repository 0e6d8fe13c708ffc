package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;

/**
 * A {@link HostDialer} whose links pass every libvirt adapter call through an {@link
 * InterceptedLibvirtHost.Interceptor}: the real links of another dialer, with a test's hook in front
 * of their adapter. It sits below the provider's connection pool, so the pooled connection and the
 * dedicated connections of image uploads are both intercepted.
 */
final class InterceptingDialer implements HostDialer {
    private final HostDialer dialer;
    private final InterceptedLibvirtHost.Interceptor interceptor;
    private final Runnable eachHostCall;

    InterceptingDialer(HostDialer dialer, InterceptedLibvirtHost.Interceptor interceptor) {
        this(dialer, interceptor, () -> { });
    }

    /** Also runs {@code eachHostCall} whenever the pool takes a link's adapter: once per host call. */
    InterceptingDialer(HostDialer dialer, InterceptedLibvirtHost.Interceptor interceptor, Runnable eachHostCall) {
        this.dialer = dialer;
        this.interceptor = interceptor;
        this.eachHostCall = eachHostCall;
    }

    @Override
    public HostLink dial(HostEndpoint host, Call dial) {
        return new InterceptedLink(dialer.dial(host, dial), interceptor, eachHostCall);
    }

    /** A link whose adapter is intercepted; the rest is the real link's. */
    private static final class InterceptedLink implements HostLink {
        private final HostLink link;
        private final LibvirtHost libvirt;

        private final Runnable eachHostCall;

        InterceptedLink(HostLink link, InterceptedLibvirtHost.Interceptor interceptor, Runnable eachHostCall) {
            this.link = link;
            this.libvirt = new InterceptedLibvirtHost(link.libvirt(), interceptor);
            this.eachHostCall = eachHostCall;
        }

        @Override
        public LibvirtHost libvirt() {
            eachHostCall.run();
            return libvirt;
        }

        @Override
        public boolean isAlive() {
            return link.isAlive();
        }

        @Override
        public void abort() {
            link.abort();
        }

        @Override
        public void close() {
            link.close();
        }
    }
}
