package dev.egressproxies.fake.state;

/** State file text as version 1 of the layout wrote it, before instances recorded their entry. */
public final class Version1State {
    /** A managed instance, {@code zone-a/old}, as version 1 recorded it: without its entry. */
    public static final String INSTANCE = "{\"id\": \"zone-a/old\", \"name\": \"old\", \"managed\": true,"
            + " \"uid\": \"uid-old\", \"createdAt\": \"2029-01-01T00:00:00Z\", \"startedAt\": \"2029-01-01T00:00:00Z\","
            + " \"stopped\": false, \"ip\": \"198.51.100.9\", \"machineType\": \"small\", \"image\": \"debian-12\"}";

    private Version1State() {
    }

    /** {@link #INSTANCE} with an {@code entry} added by hand, handing it to that entry. */
    public static String instanceHandedTo(String entry) {
        return INSTANCE.replace("\"managed\"", "\"entry\": \"" + entry + "\", \"managed\"");
    }

    /** A state document of {@code version} holding {@code instance} alone. */
    public static String document(int version, String instance) {
        return "{\"version\": " + version + ", \"instances\": [" + instance + "]}";
    }
}
