package dev.egressproxies.runtime.serve;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/** The proxies {@code serve} knows, each as its latest {@link ProxyView}; safe for concurrent use. */
final class FleetStatus {
    private final Map<String, ProxyView> proxies = new ConcurrentHashMap<>();
    private final AtomicLong version = new AtomicLong();

    /** Replaces a proxy's view by {@code change} of it (of a fresh view when there is none). */
    ProxyView update(String entry, String name, UnaryOperator<ProxyView> change) {
        ProxyView changed = proxies.compute(ProxyView.key(entry, name),
                (key, view) -> change.apply(view == null ? ProxyView.fresh(entry, name) : view));
        version.incrementAndGet();
        return changed;
    }

    /** The proxy's view, if any. */
    Optional<ProxyView> get(String entry, String name) {
        return Optional.ofNullable(proxies.get(ProxyView.key(entry, name)));
    }

    /** Forgets a proxy. */
    void remove(String entry, String name) {
        proxies.remove(ProxyView.key(entry, name));
        version.incrementAndGet();
    }

    /** Every view of one entry. */
    List<ProxyView> ofEntry(String entry) {
        return proxies.values().stream().filter(view -> view.entry().equals(entry)).toList();
    }

    /** Every view, by entry and name. */
    List<ProxyView> all() {
        return proxies.values().stream()
                .sorted(Comparator.comparing(ProxyView::entry).thenComparing(ProxyView::name)).toList();
    }

    /** Forgets every proxy of the entry. */
    void removeEntry(String entry) {
        proxies.values().removeIf(view -> view.entry().equals(entry));
        version.incrementAndGet();
    }

    /**
     * A number that grows with every change, counted after the change is made: a copy of the views
     * taken after reading it is at least as new as that number says.
     */
    long version() {
        return version.get();
    }
}
