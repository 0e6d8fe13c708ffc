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
    private final Map<String, AtomicLong> changes = new ConcurrentHashMap<>();

    /** A number that changes whenever any view does, so a document made of the views can be reused until then. */
    long version() {
        return version.get();
    }

    /**
     * A number that changes whenever a view of the entry changes beyond the time it was last looked
     * at: what a replica publishes needs writing again only then.
     */
    long changes(String entry) {
        AtomicLong count = changes.get(entry);
        return count == null ? 0 : count.get();
    }

    /** Replaces a proxy's view by {@code change} of it (of a fresh view when there is none). */
    ProxyView update(String entry, String name, UnaryOperator<ProxyView> change) {
        ProxyView[] before = new ProxyView[1];
        ProxyView changed = proxies.compute(ProxyView.key(entry, name), (key, view) -> {
            before[0] = view;
            return change.apply(view == null ? ProxyView.fresh(entry, name) : view);
        });
        version.incrementAndGet();
        if (before[0] == null || !before[0].withLastReconcile(null).equals(changed.withLastReconcile(null))) {
            changed(entry);
        }
        return changed;
    }

    private void changed(String entry) {
        changes.computeIfAbsent(entry, any -> new AtomicLong()).incrementAndGet();
    }

    /** The proxy's view, if any. */
    Optional<ProxyView> get(String entry, String name) {
        return Optional.ofNullable(proxies.get(ProxyView.key(entry, name)));
    }

    /** Forgets a proxy. */
    void remove(String entry, String name) {
        proxies.remove(ProxyView.key(entry, name));
        version.incrementAndGet();
        changed(entry);
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
        changed(entry);
    }
}
