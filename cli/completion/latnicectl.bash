# bash completion for latnicectl(1)
# SPDX-License-Identifier: GPL-2.0-or-later

_latnicectl_settings="LatencyNice= Slice= Nice= Policy= UtilMin= UtilMax= TimerSlack="
_latnicectl_unit_settings="LatencyNice= CPUWeight= CPUIdle= UtilMin= UtilMax= Slice="

_latnicectl_pids()
{
        local p
        for p in /proc/[0-9]*; do
                printf '%s\n' "${p#/proc/}"
        done
}

_latnicectl()
{
        local cur prev verb i
        local verbs="status kernel list explain get set run check cat-policy reload monitor
                     set-unit unset-unit import-ananicy"
        local global="--help --version --json --policy-dir --bus --cgroup-root --no-pager"

        COMPREPLY=()
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}

        case $prev in
        --policy-dir|--cgroup-root)
                COMPREPLY=($(compgen -d -- "$cur"))
                return
                ;;
        --bus)
                COMPREPLY=($(compgen -W "system session" -- "$cur"))
                return
                ;;
        -o|--output)
                COMPREPLY=($(compgen -f -- "$cur"))
                return
                ;;
        --tid)
                return
                ;;
        esac

        # the verb is the first word that is not an option or an option's value
        verb=
        for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                --policy-dir|--bus|--cgroup-root)
                        ((i++))
                        ;;
                -*)
                        ;;
                *)
                        verb=${COMP_WORDS[i]}
                        break
                        ;;
                esac
        done

        if [[ -z $verb ]]; then
                if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W "$global" -- "$cur"))
                else
                        COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
                fi
                return
        fi

        # after "run ... --": complete the command
        for ((i = i + 1; i < COMP_CWORD; i++)); do
                if [[ $verb == run && ${COMP_WORDS[i]} == -- ]]; then
                        COMPREPLY=($(compgen -c -- "$cur"))
                        return
                fi
        done

        case $verb in
        explain)
                if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W "--tid $global" -- "$cur"))
                else
                        COMPREPLY=($(compgen -W "$(_latnicectl_pids)" -- "$cur"))
                fi
                ;;
        get)
                COMPREPLY=($(compgen -W "$(_latnicectl_pids)" -- "$cur"))
                ;;
        set)
                if [[ $prev == set ]]; then
                        COMPREPLY=($(compgen -W "$(_latnicectl_pids)" -- "$cur"))
                else
                        compopt -o nospace 2>/dev/null
                        COMPREPLY=($(compgen -W "$_latnicectl_settings" -- "$cur"))
                fi
                ;;
        run)
                compopt -o nospace 2>/dev/null
                COMPREPLY=($(compgen -W "$_latnicectl_settings --" -- "$cur"))
                ;;
        set-unit)
                if [[ $prev == set-unit ]]; then
                        return
                fi
                if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W "--runtime" -- "$cur"))
                else
                        compopt -o nospace 2>/dev/null
                        COMPREPLY=($(compgen -W "$_latnicectl_unit_settings" -- "$cur"))
                fi
                ;;
        check)
                COMPREPLY=($(compgen -f -X '!*.policy' -- "$cur") $(compgen -d -- "$cur"))
                ;;
        import-ananicy)
                if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W "-o --output" -- "$cur"))
                else
                        COMPREPLY=($(compgen -d -- "$cur"))
                fi
                ;;
        *)
                if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W "$global" -- "$cur"))
                fi
                ;;
        esac
}

complete -F _latnicectl latnicectl
