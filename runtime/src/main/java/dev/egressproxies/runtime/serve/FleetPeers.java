package dev.egressproxies.runtime.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Optional;

/**
 * The other replicas of a replicated {@code serve}, as this one's API shows them: which entries
 * this replica shows from its own views (those it leads), and what the leaders of the others
 * published. A single {@code serve} has none ({@link #NONE}) and shows everything itself.
 */
public interface FleetPeers {
    /** A single serve: no peers, every entry its own, never stale. */
    FleetPeers NONE = new FleetPeers() {
        @Override
        public String replica() {
            return "";
        }

        @Override
        public boolean showsOwn(String entry) {
            return true;
        }

        @Override
        public Map<String, ObjectNode> published() {
            return Map.of();
        }

        @Override
        public long version() {
            return 0;
        }

        @Override
        public Optional<String> stale() {
            return Optional.empty();
        }

        @Override
        public Optional<ObjectNode> replicas() {
            return Optional.empty();
        }

        @Override
        public String leaderOf(String entry) {
            return "";
        }
    };

    /** This replica's name; {@code ""} for a single serve. */
    String replica();

    /** Whether this replica shows the entry from its own views: it leads it. */
    boolean showsOwn(String entry);

    /**
     * What other replicas published, by entry: {@code leader}, {@code publishedAt},
     * {@code desiredRevision}, {@code entry} (as {@code /v1/entries} shows one) and {@code proxies}
     * (as {@code /v1/proxies} shows them), for the entries this replica does not lead.
     */
    Map<String, ObjectNode> published();

    /** A number that changes whenever {@link #published} or {@link #stale} does. */
    long version();

    /** Why what this replica shows may be out of date (etcd does not answer), or empty. */
    Optional<String> stale();

    /** The {@code /v1/replicas} document, or empty for a single serve. */
    Optional<ObjectNode> replicas();

    /**
     * Who leads an entry this replica does not, for a message that sends the caller there: the
     * replica's name and API address, or that none leads it now.
     */
    String leaderOf(String entry);
}
