/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kubernetes pods: what the kubelet's cgroup layout says about a process
 * (the "pod" match key, policy/keys.c). The kubelet puts a pod in a cgroup
 * by QoS class, with the pod's UID in its name and a cgroup per container:
 *
 *   systemd driver  /kubepods.slice/kubepods-besteffort.slice/
 *                     kubepods-besteffort-pod<UID>.slice/cri-containerd-<ID>.scope
 *                   /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<UID>.slice/...
 *                   /kubepods.slice/kubepods-pod<UID>.slice/crio-<ID>.scope   (guaranteed)
 *   cgroupfs driver /kubepods/besteffort/pod<UID>/<ID>
 *                   /kubepods/burstable/pod<UID>/<ID>
 *                   /kubepods/pod<UID>/<ID>                                    (guaranteed)
 *
 * with the same paths on cgroup v2 and in the v1 hierarchies, and possibly
 * below a parent (kind's /kubelet.slice/kubelet-kubepods.slice/...). The
 * systemd driver writes the UID's dashes as underscores; they are given
 * back. The value is "QOS/UID/ID" ("QOS/UID" for a process in the pod's own
 * cgroup), QOS being "guaranteed", "burstable" or "besteffort", ID the
 * container's id without the runtime's prefix ("cri-containerd-", "crio-",
 * "docker-", ...) and ".scope".
 */
#pragma once

#include <stddef.h>

/* The pod of the cgroup path PATH ("/kubepods.slice/..."). 0 and *RET
 * (malloc'ed), -ENXIO if PATH is not in a pod, -ENOMEM. */
int kube_pod_from_path(const char *path, char **ret);

/* The pod of a process from its /proc/PID/cgroup text (SIZE bytes): the
 * cgroup v2 line ("0::") first, then the v1 lines in file order; the first
 * that names a pod. 0 and *RET, -ENXIO if none does, -ENOMEM. */
int kube_pod_from_cgroup_file(const char *buf, size_t size, char **ret);
