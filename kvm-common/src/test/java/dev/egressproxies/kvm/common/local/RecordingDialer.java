package dev.egressproxies.kvm.common.local;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Wraps a real dialer and keeps every link it made, so tests can count dials and reach the links. */
final class RecordingDialer implements HostDialer {
    private final HostDialer dialer;
    private final List<HostLink> links = new CopyOnWriteArrayList<>();

    RecordingDialer(HostDialer dialer) {
        this.dialer = dialer;
    }

    @Override
    public HostLink dial(HostEndpoint host, Call dial) {
        HostLink link = dialer.dial(host, dial);
        links.add(link);
        return link;
    }

    List<HostLink> links() {
        return links;
    }
}
