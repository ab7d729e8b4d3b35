# bash completion for latnicectl(1)
# SPDX-License-Identifier: GPL-2.0-or-later

_latnicectl_settings="LatencyNice= Slice= Nice= Policy= UtilMin= UtilMax= TimerSlack= IOClass= IONice= OOMScoreAdj= CoreSched= CPUAffinity= RealtimePriority="
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
                     metrics set-unit unset-unit import-ananicy"
        local global="--help --version --json --json= --no-pager --no-legend --full --quiet
                      --policy-dir --bus --cgroup-root"

        COMPREPLY=()
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}

        # --json=MODE: bash splits the word at "=" (COMP_WORDBREAKS) or not
        if [[ $cur == --json=* ]]; then
                COMPREPLY=($(compgen -P --json= -W "pretty short off" -- "${cur#--json=}"))
                return
        fi
        if [[ $prev == --json && $cur == = ]]; then
                COMPREPLY=(pretty short off)
                return
        fi
        if [[ $prev == = && ${COMP_WORDS[COMP_CWORD-2]} == --json ]]; then
                COMPREPLY=($(compgen -W "pretty short off" -- "$cur"))
                return
        fi
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
                --policy-dir|--bus|--cgroup-root|--tid|-o|--output|=)
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
                        COMPREPLY=($(compgen -W "--tid --all $global" -- "$cur"))
                else
                        COMPREPLY=($(compgen -W "$(_latnicectl_pids)" -- "$cur"))
                fi
                ;;
        get)
                COMPREPLY=($(compgen -W "$(_latnicectl_pids)" -- "$cur"))
                ;;
        kernel)
                COMPREPLY=($(compgen -W "--machine $global" -- "$cur"))
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
        set-unit|unset-unit)
                if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W "--runtime $global" -- "$cur"))
                        return
                fi
                if [[ $prev == "$verb" || $verb == unset-unit ]]; then
                        return
                fi
                compopt -o nospace 2>/dev/null
                COMPREPLY=($(compgen -W "$_latnicectl_unit_settings" -- "$cur"))
                ;;
        check)
                COMPREPLY=($(compgen -f -X '!*.policy' -- "$cur") $(compgen -d -- "$cur"))
                ;;
        metrics)
                if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W "-o --output $global" -- "$cur"))
                fi
                ;;
        import-ananicy)
                if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W "-o --output $global" -- "$cur"))
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
