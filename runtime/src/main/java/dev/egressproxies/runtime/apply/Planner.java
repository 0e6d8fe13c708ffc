package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Works out what {@code apply} must change: create what is missing, start what is stopped, and
 * delete managed instances that the set no longer lists, only in the entries the set names.
 */
public final class Planner {

    /**
     * Plans the changes.
     *
     * @param desired the desired proxies
     * @param managed every entry the set names, mapped to its managed instances now
     */
    public Plan plan(List<ResolvedProxy> desired, Map<String, List<Instance>> managed) {
        List<PlanStep> starts = new ArrayList<>();
        List<PlanStep> deletes = new ArrayList<>();
        int unchanged = 0;
        Set<String> wanted = new HashSet<>();
        for (ResolvedProxy proxy : desired) {
            String name = proxy.request().name();
            wanted.add(proxy.entry() + "/" + name);
            Instance existing = byName(managed.getOrDefault(proxy.entry(), List.of())).get(name);
            if (existing == null) {
                starts.add(new PlanStep(PlanStep.Action.CREATE, proxy.entry(), name, "", proxy.request()));
            } else if (existing.state() == InstanceState.STOPPED) {
                starts.add(new PlanStep(PlanStep.Action.START, proxy.entry(), name, existing.id(), proxy.request()));
            } else {
                unchanged++;
            }
        }
        for (Map.Entry<String, List<Instance>> entry : managed.entrySet()) {
            for (Instance instance : entry.getValue()) {
                if (!wanted.contains(entry.getKey() + "/" + instance.name())) {
                    deletes.add(new PlanStep(PlanStep.Action.DELETE, entry.getKey(), instance.name(),
                            instance.id(), null));
                }
            }
        }
        List<PlanStep> steps = new ArrayList<>(starts);
        steps.addAll(deletes);
        return new Plan(steps, unchanged);
    }

    private static Map<String, Instance> byName(List<Instance> instances) {
        Map<String, Instance> byName = new LinkedHashMap<>();
        for (Instance instance : instances) {
            byName.putIfAbsent(instance.name(), instance);
        }
        return byName;
    }
}
