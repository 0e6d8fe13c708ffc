package dev.egressproxies.integration.kvm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** The details of the per-host "SSH and libvirt" checks in the output of {@code egressctl check -o json}. */
final class SshCheckDetails {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PREFIX = "SSH and libvirt on host ";

    private SshCheckDetails() {
    }

    /** The detail of each host's SSH check, by host name, in the order check printed them. */
    static Map<String, String> of(EgressctlProcess.Result check) {
        Map<String, String> details = new LinkedHashMap<>();
        try {
            for (JsonNode result : JSON.readTree(check.out()).get("checks")) {
                String name = result.get("check").asText();
                if (name.startsWith(PREFIX)) {
                    details.put(name.substring(PREFIX.length()).split(" ")[0], result.get("detail").asText());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("check printed no JSON: " + check, e);
        }
        return details;
    }
}
